// glibc's <malloc.h>, which the Glibc module does not export: `malloc_trim` (SystemIO's
// FreedHeapMemory).
#include <malloc.h>
