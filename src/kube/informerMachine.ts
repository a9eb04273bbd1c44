// The informer's states and transitions: list, then watch from the list's resourceVersion, recover from anything.
//
// `step` is pure: the driver (newInformer) performs the effects it returns and feeds back what happened.
import { backoffDelay, type BackoffPolicy } from './backoff.js';

/** Where the informer is. */
export type InformerState =
  /** A LIST (all pages) is in flight. `attempt` counts failures since a watch last stayed healthy. */
  | { readonly kind: 'listing'; readonly attempt: number }
  /**
   * A WATCH from `resourceVersion` is open or opening. `sawEvent`: it delivered something (an event or a
   * bookmark). `afterList`: it starts from a LIST's resourceVersion. `attempt` is reset only once the watch
   * has stayed open for a while (`watchHealthy`): an event followed at once by an error proves nothing.
   */
  | {
      readonly kind: 'watching';
      readonly resourceVersion: string;
      readonly attempt: number;
      readonly sawEvent: boolean;
      readonly afterList: boolean;
    }
  /** Backing off before the next LIST or WATCH. */
  | { readonly kind: 'waiting'; readonly then: 'list' | 'watch'; readonly resourceVersion: string; readonly attempt: number }
  /**
   * The server has no such resource (a LIST answered 404 before any succeeded: a CRD not installed yet). The
   * informer counts as synced and empty, and looks again (`probe`) every so often until the resource appears.
   */
  | { readonly kind: 'absent' }
  /** Stopped for good. */
  | { readonly kind: 'stopped' };

/** What happened. */
export type InformerInput =
  | { readonly kind: 'listed'; readonly resourceVersion: string }
  /** `retryAfterMs`: the server asked to wait this long (Retry-After), already capped. */
  | { readonly kind: 'listFailed'; readonly error: unknown; readonly retryAfterMs?: number }
  | { readonly kind: 'watchEvent'; readonly resourceVersion: string | undefined }
  | { readonly kind: 'watchExpired' }
  /** The server refused the watch's resourceVersion (400): like an expiry, only a LIST helps, but it is reported. */
  | { readonly kind: 'watchRefused'; readonly error: unknown }
  | { readonly kind: 'watchClosed' }
  /** The watch has stayed open `healthyWatchMs`: the failures before it are forgiven. */
  | { readonly kind: 'watchHealthy' }
  | { readonly kind: 'watchFailed'; readonly error: unknown; readonly retryAfterMs?: number }
  | { readonly kind: 'timerFired' }
  /** The LIST found no such resource, or a probe still finds none. */
  | { readonly kind: 'resourceMissing' }
  /** A probe found the resource. */
  | { readonly kind: 'resourceFound' }
  | { readonly kind: 'stop' };

/** What the driver must do. */
export type InformerEffect =
  | { readonly kind: 'list' }
  /** Ask the server (discovery) whether the missing resource exists now. */
  | { readonly kind: 'probe' }
  /** The resource is missing: count as synced and empty. */
  | { readonly kind: 'absent' }
  | { readonly kind: 'watch'; readonly resourceVersion: string }
  | { readonly kind: 'closeWatch' }
  /** Wait `ms` (the backoff, which the driver may jitter), and at least `atLeastMs` when the server asked for it. */
  | { readonly kind: 'wait'; readonly ms: number; readonly atLeastMs?: number }
  | { readonly kind: 'cancelWait' }
  | { readonly kind: 'report'; readonly error: unknown; readonly during: 'list' | 'watch' };

/** The state an informer starts in (the driver starts with a `list` effect). */
export const INITIAL_STATE: InformerState = { kind: 'listing', attempt: 0 };

/** How often an absent resource is probed for, unless told otherwise (ms). */
export const RESOURCE_POLL_MS = 5_000;

/** One transition. Inputs that do not apply to the current state change nothing. */
export function step(
  state: InformerState,
  input: InformerInput,
  policy?: BackoffPolicy,
  resourcePollMs = RESOURCE_POLL_MS,
): { state: InformerState; effects: InformerEffect[] } {
  if (state.kind === 'stopped') return { state, effects: [] };
  if (input.kind === 'stop') return { state: { kind: 'stopped' }, effects: [{ kind: 'closeWatch' }, { kind: 'cancelWait' }] };
  switch (state.kind) {
    case 'listing':
      if (input.kind === 'listed') {
        // The attempt count survives a LIST: only a watch that delivers something proves we are back in step.
        return {
          state: { kind: 'watching', resourceVersion: input.resourceVersion, attempt: state.attempt, sawEvent: false, afterList: true },
          effects: [{ kind: 'watch', resourceVersion: input.resourceVersion }],
        };
      }
      if (input.kind === 'resourceMissing') {
        return { state: { kind: 'absent' }, effects: [{ kind: 'absent' }, { kind: 'wait', ms: resourcePollMs }] };
      }
      if (input.kind === 'listFailed') {
        const attempt = state.attempt + 1;
        return {
          state: { kind: 'waiting', then: 'list', resourceVersion: '', attempt },
          effects: [{ kind: 'report', error: input.error, during: 'list' }, waitFor(attempt, policy, input.retryAfterMs)],
        };
      }
      return { state, effects: [] };
    case 'watching':
      switch (input.kind) {
        case 'watchEvent':
          return {
            state: { ...state, resourceVersion: input.resourceVersion ?? state.resourceVersion, sawEvent: true },
            effects: [],
          };
        case 'watchHealthy':
          return { state: { ...state, attempt: 0 }, effects: [] };
        case 'watchExpired':
        case 'watchRefused': {
          const report: InformerEffect[] = input.kind === 'watchRefused' ? [{ kind: 'report', error: input.error, during: 'watch' }] : [];
          // History is gone: only a fresh LIST (diffed against the cache) can bring us back in step.
          if (!state.afterList || state.sawEvent) {
            return {
              state: { kind: 'listing', attempt: state.attempt },
              effects: [{ kind: 'closeWatch' }, ...report, { kind: 'list' }],
            };
          }
          // Even the resourceVersion of a LIST just made is gone: relisting at once could spin (LIST, 410,
          // LIST, …) as fast as the server answers. Back off like any other failure.
          const attempt = state.attempt + 1;
          return {
            state: { kind: 'waiting', then: 'list', resourceVersion: '', attempt },
            effects: [{ kind: 'closeWatch' }, ...report, { kind: 'wait', ms: backoffDelay(attempt, policy) }],
          };
        }
        case 'watchClosed': {
          // A watch that delivered something ended normally: resume at once. One that delivered nothing
          // may be a server refusing us quietly: back off so we never spin.
          if (state.sawEvent) {
            return {
              state: { ...state, sawEvent: false, afterList: false },
              effects: [{ kind: 'watch', resourceVersion: state.resourceVersion }],
            };
          }
          const attempt = state.attempt + 1;
          return {
            state: { kind: 'waiting', then: 'watch', resourceVersion: state.resourceVersion, attempt },
            effects: [{ kind: 'wait', ms: backoffDelay(attempt, policy) }],
          };
        }
        case 'watchFailed': {
          const attempt = state.attempt + 1;
          return {
            state: { kind: 'waiting', then: 'watch', resourceVersion: state.resourceVersion, attempt },
            effects: [
              { kind: 'closeWatch' },
              { kind: 'report', error: input.error, during: 'watch' },
              waitFor(attempt, policy, input.retryAfterMs),
            ],
          };
        }
        default:
          return { state, effects: [] };
      }
    case 'absent':
      if (input.kind === 'timerFired') return { state, effects: [{ kind: 'probe' }] };
      if (input.kind === 'resourceMissing') return { state, effects: [{ kind: 'wait', ms: resourcePollMs }] };
      if (input.kind === 'resourceFound') return { state: { kind: 'listing', attempt: 0 }, effects: [{ kind: 'list' }] };
      return { state, effects: [] };
    case 'waiting':
      if (input.kind !== 'timerFired') return { state, effects: [] };
      if (state.then === 'list') return { state: { kind: 'listing', attempt: state.attempt }, effects: [{ kind: 'list' }] };
      return {
        state: { kind: 'watching', resourceVersion: state.resourceVersion, attempt: state.attempt, sawEvent: false, afterList: false },
        effects: [{ kind: 'watch', resourceVersion: state.resourceVersion }],
      };
  }
}

function waitFor(attempt: number, policy: BackoffPolicy | undefined, retryAfterMs: number | undefined): InformerEffect {
  const ms = backoffDelay(attempt, policy);
  return retryAfterMs === undefined ? { kind: 'wait', ms } : { kind: 'wait', ms, atLeastMs: retryAfterMs };
}
