/**
 * The engine knows keys, not Kubernetes. What crosses its boundary so far: the clock.
 */
export { systemClock, type Clock } from './clock.ts';
