#include <stdio.h>
#include "util.h"

int main(void) {
  printf("%d\n", add(1, 2));
  return 0;
}
