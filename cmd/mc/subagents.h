/*
 * subagents.h: one call of the subagents tool, shared by subagents.c
 * (the tool: its tasks checked, their answers as its output), subrun.c
 * (the children: started in their slots, their events read, cancelled,
 * reaped) and subshow.c (their progress: status lines on the terminal,
 * subagent events with --json).
 */
#ifndef MC_SUBAGENTS_H
#define MC_SUBAGENTS_H

#include <stddef.h>
#include <sys/types.h>

#include <cJSON.h>

#include "buf.h"
#include "lines.h"
#include "mc.h"

#define MAX_SUBAGENT_TASKS 8
#define TASK_OUTPUT_MAX (16u << 10)	/* a task's part of the output */
#define ERR_TAIL 2048			/* the end of a child's stderr, kept */
#define DRAW_MS 100			/* the progress lines, redrawn at most so often */

enum state { QUEUED, RUNNING, ENDED };

struct task {
	int n;			/* 1, 2, ... */
	char *agent, *model, *prompt;
	enum state state;
	pid_t pid;
	struct mc_lines out;	/* its events; fd -1 once at its end */
	int errfd;		/* its stderr, or -1 */
	struct mc_buf errtail;
	char *session;		/* its session's id, once it said */
	int started;		/* its start event was given */
	struct mc_buf answer;	/* the head of its last answer's text */
	size_t answer_len;	/* the whole length of that text */
	int fresh;		/* the next text starts a new answer */
	int in_answer;		/* an answer is coming: a step */
	long long steps;
	struct usage used;
	char *tool;		/* the last tool it called */
	char reason[16];	/* its done event's reason, "" without one */
	char *error;		/* its last error event */
	int wstatus;
	int killed;		/* we ended it */
	int lent;		/* it has this run's own slot (slots.c) */
};

struct run {
	struct driver *d;
	struct task t[MAX_SUBAGENT_TASKS];
	size_t n, next, running, max;
	int cancelled;		/* the children were told to stop */
	int lent;		/* this run's own slot is a running child's */
	int no_slot;		/* a task waits for a slot of the tree */
	long long cancel_at;
	int draw;		/* progress lines on the terminal */
	int drawn;		/* lines drawn so far */
	int dirty;
	long long drawn_at;
};

/* subrun.c */
void subrun_all(struct run *R);

/* subshow.c */
const char *subshow_outcome(const struct task *t);
void subshow_event(struct run *R, struct task *t, const char *what);
void subshow_draw(struct run *R, int now);

#endif
