const char *greet(const char *name);
