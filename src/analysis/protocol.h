/* fgbisect — which API a Zeebe profile serves (gRPC or REST), streamed; and
 * which event a profile measures.
 *
 * Rules (docs/protocol.md, zeebe.md §4), on raw or normalised names, so that
 * dotted frames (`org.apache.coyote.…`) count as their slashed form:
 *  - REST when any frame matches `org/apache/coyote/`, `org/apache/catalina/`,
 *    `FrameworkServlet`, `BearerTokenAuthenticationFilter` or
 *    `org/springframework/security/web/FilterChainProxy`;
 *  - else gRPC when any frame matches `io/grpc/`.  A Netty event loop
 *    (`io/netty/channel/nio/NioEventLoop.run`, `SingleThreadIoEventLoop`)
 *    alone proves nothing — a broker runs Raft on Netty too — but one with
 *    `io/grpc/` frames beneath it is evidence;
 *  - else unknown.
 * Evidence: up to FG_PROTOCOL_MAX_EVIDENCE distinct marker frames of the
 * verdict, most samples first (samples of stacks holding the frame, each
 * stack counted once), ties in byte order.  State is per name and per open
 * marker frame, never per frame. */
#ifndef FG_PROTOCOL_H
#define FG_PROTOCOL_H

#include <stddef.h>

#include "model/profile.h"

#define FG_PROTOCOL_MAX_EVIDENCE 5

typedef enum { FG_PROTOCOL_UNKNOWN = 0, FG_PROTOCOL_GRPC, FG_PROTOCOL_REST } fg_protocol_kind;

typedef struct fg_protocol fg_protocol;

/* names must outlive the detector. */
int fg_protocol_new(fg_protocol **out, const fg_names *names, fg_error *err);
void fg_protocol_free(fg_protocol *p);

/* Forgets the profile seen, for the next one. */
void fg_protocol_reset(fg_protocol *p);

/* The visitor to give the reader (ctx = the fg_protocol): frames, or whole
 * stacks.  The verdict and the evidence are ready after the end call
 * (frames == NULL). */
int fg_protocol_frames(void *p, const fg_frame *frames, size_t n, fg_error *err);
int fg_protocol_stack(void *p, const fg_stack *stack, fg_error *err);

/* The verdict alone, from the distinct names of a profile instead of its
 * frames, for a caller that already has them (diff has per-name counts):
 * feed each name once after fg_protocol_reset.  The verdict equals the
 * visitor's, since it depends only on which names occur; no evidence. */
int fg_protocol_name_seen(fg_protocol *p, uint32_t name, fg_error *err);

fg_protocol_kind fg_protocol_result(const fg_protocol *p);

/* The evidence frames (names as the profile spells them), most samples
 * first; none for an unknown protocol. */
size_t fg_protocol_evidence_count(const fg_protocol *p);
const char *fg_protocol_evidence(const fg_protocol *p, size_t i);

/* "grpc", "rest", "unknown". */
const char *fg_protocol_name(fg_protocol_kind k);

/* What a profile measures, from its title/units: "cpu", "alloc", "wall",
 * "lock" or NULL when unknown.  async-profiler titles its graphs "CPU
 * profile", "Allocation profile", "Wall clock profile" or "Lock profile",
 * with " (<units>)" appended under --total; the converter's default "Flame
 * Graph" and collapsed input (no title) say nothing. */
const char *fg_protocol_event(const fg_profile_info *info);

/* The protocol or event of several profiles, one label at a time: label
 * (what those before say: NULL when none says) joined with next (NULL when
 * this one does not say): the one value they all give, or "mixed" once
 * two differ.  A run's lines, a side of a diff: start from NULL. */
const char *fg_protocol_join(const char *label, const char *next);

#endif
