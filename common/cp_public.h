/* SPDX-License-Identifier: MIT */
/* The public header with default visibility: everything else is built with
 * -fvisibility=hidden, so libclearpages.so exports the contract only. */
#ifndef CP_PUBLIC_H
#define CP_PUBLIC_H
#pragma GCC visibility push(default)
#include "clearpages.h"
#pragma GCC visibility pop
#endif
