
#include "make_pair.h"

size_type_pair make_pair(size_type first, size_type second)
{
  size_type_pair pair = {first, second};
  return pair;
}

