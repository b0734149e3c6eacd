/* window.h: the model's context window: its size from settings, token counts, overflow errors. */
#ifndef MC_WINDOW_H
#define MC_WINDOW_H

#include <stdbool.h>
#include <stddef.h>

#include <cJSON.h>

#include "settings.h"

/*
 * The context window of model at provider, in tokens: the setting
 * models.MODEL.context_window, else providers.PROVIDER.context_window
 * (mc_settings_load has checked both are whole numbers from 1); 0 when
 * neither is set. With from, the setting used is named there ("" for
 * none). Names are looked up whole: a model id may hold dots.
 */
long long mc_window_size(const struct mc_settings *s, const char *provider, const char *model,
    char *from, size_t fromsz);

/* The estimate for text not yet counted by the provider: a token per 4 bytes. */
long long mc_window_tokens(size_t bytes);

/*
 * A session's usage record {"type":"usage","input_tokens":N,"output_tokens":N,...}
 * (bookkeeping, not conversation). Returns 0 when item is not one; 1 with
 * *tokens set to what the context held once the answer was in it (input
 * plus output); -1 when it is one but a count is missing or not a whole
 * number, with the member named in err.
 */
int mc_window_usage(const cJSON *item, long long *tokens, char *err, size_t errsz);

/*
 * True when a provider's error says the request did not fit the context
 * window: the code context_length_exceeded (OpenAI) or
 * exceed_context_size_error (llama.cpp), invalid_request_error with
 * "prompt is too long" (Anthropic), or a status 400 whose message names
 * the context length, size or window.
 */
bool mc_window_overflow(int status, const char *code, const char *message);

/*
 * The size of the request, in tokens, as a provider's context-overflow
 * error counts it: n_prompt_tokens in the error body (llama.cpp's, at the
 * top or in its "error" object; body may be NULL), else the count in the
 * message ("... your messages resulted in 9000 tokens", OpenAI's). 0
 * when neither says.
 */
long long mc_window_told(const char *body, size_t len, const char *message);

#endif
