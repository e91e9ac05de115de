/*
 * version.h - the version of lbtriage, printed by every program's --version.
 * Leaf header.
 */
#ifndef LBT_VERSION_H
#define LBT_VERSION_H

#define LBT_VERSION "0.1.0"

#endif
