/** The readiness of any object, as kstatus judges it (see readiness.ts). */
export {
  READINESS_STATUSES, SCHEDULE_GRACE_MS, conditionOf, isReady, readinessOf,
  type Condition, type Readiness, type ReadinessOptions, type ReadinessStatus,
} from './readiness.ts';
