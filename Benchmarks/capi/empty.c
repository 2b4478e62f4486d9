/* The baseline of the footprint script: a C program that does nothing. */
int main(void) { return 0; }
