/** The readiness of any object, as kstatus judges it (see readiness.ts). */
export { READINESS_STATUSES, conditionOf, isReady, readinessOf, type Readiness, type ReadinessStatus } from './readiness.ts';
