#ifndef CONFIG_H
#define CONFIG_H

#define CAPACITY 16

/* With WITH_CLAMP, indices are clamped into the buffer before use. */
#ifdef WITH_CLAMP
#define LIMIT(x) clamp_index(x)
#else
#define LIMIT(x) (x)
#endif

#endif
