#include <stdio.h>
#include "greet.h"

int main(void) {
    printf("%s\n", greet("world"));
    return 0;
}
