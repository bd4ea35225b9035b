
#ifndef SIZE_TYPE_PAIR_H_INCLUDED
#define SIZE_TYPE_PAIR_H_INCLUDED

#include "typedefs.h"

struct size_type_pair {
  size_type first;
  size_type second;
};

typedef struct size_type_pair size_type_pair;

#endif /* SIZE_TYPE_PAIR_H_INCLUDED */

