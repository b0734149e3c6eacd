/* glob.h: path globs with "**" (find's, and the approval rules' paths). */
#ifndef MC_GLOB_H
#define MC_GLOB_H

/*
 * Match the relative path p against glob g segment by segment: each
 * segment by fnmatch(3) (no flags), and "**" as a whole segment matches
 * any number of segments (at the end, at least one). Time linear in the
 * length of p. True on a match.
 */
int mc_glob_match(const char *g, const char *p);

#endif
