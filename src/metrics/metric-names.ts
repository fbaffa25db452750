/**
 * Prometheus's naming rules for metrics and labels. A name outside them makes the scraper reject the
 * whole exposition, so one bad name would lose every metric of the process: names are checked when a
 * metric is registered, where the mistake is made, and the error names it.
 */

/** A metric name: letters, digits, `_` and `:` (colons are meant for recording rules), not starting with a digit. */
const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;

/** A label name: letters, digits and `_`, not starting with a digit; a leading `__` is reserved for Prometheus itself. */
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/**
 * Throws unless `name` and every one of `labelNames` follow the rules, no label is named twice, and a
 * histogram has no label `le` (its buckets' own).
 */
export function checkMetricNames(name: string, labelNames: readonly string[], type: 'counter' | 'gauge' | 'histogram'): void {
  if (!METRIC_NAME.test(name)) throw new Error(`metric name ${JSON.stringify(name)} is not valid: it must match ${METRIC_NAME.source}`);
  const seen = new Set<string>();
  for (const label of labelNames) {
    const where = `${name}: label name ${JSON.stringify(label)}`;
    if (!LABEL_NAME.test(label) || label.startsWith('__')) throw new Error(`${where} is not valid: it must match ${LABEL_NAME.source} and not start with __`);
    if (seen.has(label)) throw new Error(`${where} is given twice`);
    if (type === 'histogram' && label === 'le') throw new Error(`${where} is reserved for histogram buckets`);
    seen.add(label);
  }
}
