/**
 * Whether two label selectors can never match the same object. Used to tell whether two controllers
 * naming one parent type would both sync some parent: only provably disjoint selectors share a type.
 * The answer is conservative: `true` only with proof from one label key; selectors disjoint for
 * reasons spread over several keys count as overlapping.
 */
import type { LabelSelector } from './label-selector.ts';

/** What one selector demands of one label key. */
interface KeyDemand {
  /** The label must exist (matchLabels, In, Exists). */
  present: boolean;
  /** The label must not exist (DoesNotExist). */
  absent: boolean;
  /** The value must be one of these (matchLabels, In); `undefined`: any. */
  allowed: Set<string> | undefined;
  /** The value must not be one of these (NotIn). */
  excluded: Set<string>;
}

function emptyDemand(): KeyDemand {
  return { present: false, absent: false, allowed: undefined, excluded: new Set() };
}

/** Adds one requirement to the demand on its key. */
function addRequirement(demand: KeyDemand, operator: string, values: readonly string[]): void {
  if (operator === 'In') {
    const before = demand.allowed;
    demand.present = true;
    demand.allowed = new Set(before === undefined ? values : values.filter((v) => before.has(v)));
  } else if (operator === 'NotIn') for (const v of values) demand.excluded.add(v);
  else if (operator === 'Exists') demand.present = true;
  else demand.absent = true;
}

function demandsOf(selector: LabelSelector): Map<string, KeyDemand> {
  const demands = new Map<string, KeyDemand>();
  const requirements = [
    ...Object.entries(selector.matchLabels ?? {}).map(([key, value]) => ({ key, operator: 'In', values: [value] })),
    ...(selector.matchExpressions ?? []),
  ];
  for (const { key, operator, values } of requirements) {
    const demand = demands.get(key) ?? emptyDemand();
    demands.set(key, demand);
    addRequirement(demand, operator, values ?? []);
  }
  return demands;
}

/** Whether no value is allowed by both demands (`false` when neither limits the values). */
function noCommonValue(a: KeyDemand, b: KeyDemand): boolean {
  let allowed: string[];
  if (a.allowed !== undefined && b.allowed !== undefined) allowed = [...a.allowed].filter((v) => b.allowed!.has(v));
  else if (a.allowed !== undefined || b.allowed !== undefined) allowed = [...(a.allowed ?? b.allowed)!];
  else return false;
  return allowed.every((v) => a.excluded.has(v) || b.excluded.has(v));
}

function keyDisjoint(a: KeyDemand, b: KeyDemand): boolean {
  if ((a.absent && b.present) || (a.present && b.absent)) return true;
  // A NotIn alone lets the label be missing, so one side must demand it for the values to decide.
  return (a.present || b.present) && noCommonValue(a, b);
}

/**
 * True when no label map can satisfy both selectors, judged key by key: `app=a` and `app=b`, `app In
 * (a,b)` and `app NotIn (a,b)`, `app=a` and `app DoesNotExist`. An absent selector matches everything.
 */
export function selectorsDisjoint(a: LabelSelector | undefined, b: LabelSelector | undefined): boolean {
  if (a === undefined || b === undefined) return false;
  const demandsB = demandsOf(b);
  for (const [key, demandA] of demandsOf(a)) {
    const demandB = demandsB.get(key);
    if (demandB !== undefined && keyDisjoint(demandA, demandB)) return true;
  }
  return false;
}
