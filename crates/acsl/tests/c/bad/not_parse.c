/* A function whose body is cut short. */
int broken(int x) {
  if (x > 0 {
    return x;
  }
