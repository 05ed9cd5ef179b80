int burst(void) { return 1; }
