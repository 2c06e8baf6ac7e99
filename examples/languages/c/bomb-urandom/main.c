/* A compiler bomb: the preprocessor reads an endless file. */
#include "/dev/urandom"
int main(void) { return 0; }
