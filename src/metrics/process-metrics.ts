/**
 * The process and Node.js series operators expect from a Node service, under prom-client's names (the
 * `process_*` ones are also the Go client's), so existing dashboards show loom too. Values are read at
 * scrape time. Two things run between scrapes: the event loop delay monitor and the GC observer. The
 * first scrape starts them (so GC durations count from then on): a registry nobody scrapes, as in most
 * tests, costs nothing. Neither keeps the process alive, and `close()` stops them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { constants, monitorEventLoopDelay, PerformanceObserver, type ELDHistogram, type NodeGCPerformanceDetail } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';
import type { Counter, Histogram, Registry } from './exposition.ts';

/** Stops the monitor and observer the metrics started. */
export interface ProcessMetrics {
  close(): void;
}

/** Registers the process and Node.js series on `registry`, in prom-client's order. */
export function registerProcessMetrics(registry: Registry): ProcessMetrics {
  let watchers: { delay: ELDHistogram; gc: PerformanceObserver } | undefined;
  let closed = false;
  // Called by each scrape (the event loop gauge's collect), which starts both on the first.
  const delayMonitor = (): ELDHistogram | undefined => {
    if (!watchers && !closed) watchers = { delay: startDelayMonitor(), gc: observeGc(gcSeconds) };
    return watchers?.delay;
  };

  registerCpu(registry);
  const startSeconds = Math.round(Date.now() / 1000 - process.uptime());
  registry.gauge({ name: 'process_start_time_seconds', help: 'Start time of the process since unix epoch in seconds.' }).set({}, startSeconds);
  registerMemory(registry);
  registerFileDescriptors(registry);
  registerEventLoop(registry, delayMonitor);
  registerResources(registry);
  registerHeap(registry);
  const [major = '', minor = '', patch = ''] = process.versions.node.split('.');
  registry.gauge({ name: 'nodejs_version_info', help: 'Node.js version info.', labelNames: ['version', 'major', 'minor', 'patch'] })
    .set({ version: process.version, major, minor, patch }, 1);
  const gcSeconds = registry.histogram({
    name: 'nodejs_gc_duration_seconds', help: 'Garbage collection duration by kind, one of major, minor, incremental or weakcb.',
    labelNames: ['kind'], buckets: [0.001, 0.01, 0.1, 1, 2, 5],
  });

  return {
    close() {
      closed = true;
      watchers?.delay.disable();
      watchers?.gc.disconnect();
      watchers = undefined;
    },
  };
}

function registerCpu(registry: Registry): void {
  // The process's totals (as the Go client's are), from one reading per scrape so they add up: a
  // counter restarts from 0 only with the process, so setting it to the total is its value.
  const set = (counter: Counter<never>, microseconds: number): void => {
    counter.reset();
    counter.inc({}, microseconds / 1e6);
  };
  registry.counter({
    name: 'process_cpu_user_seconds_total', help: 'Total user CPU time spent in seconds.',
    collect(user) {
      const usage = process.cpuUsage();
      set(user, usage.user);
      set(system, usage.system);
      set(total, usage.user + usage.system);
    },
  });
  const system = registry.counter({ name: 'process_cpu_system_seconds_total', help: 'Total system CPU time spent in seconds.' });
  const total = registry.counter({ name: 'process_cpu_seconds_total', help: 'Total user and system CPU time spent in seconds.' });
}

/** `VmRSS`, `VmSize` and `VmData` of /proc/self/status in bytes; undefined where there is none (not Linux). */
function readProcStatus(): { rss: number; virtual: number; data: number } | undefined {
  let text: string;
  try {
    text = readFileSync('/proc/self/status', 'utf8');
  } catch {
    return undefined;
  }
  const kib = (field: string): number => Number(new RegExp(`^${field}:\\s*(\\d+) kB$`, 'm').exec(text)?.[1] ?? NaN) * 1024;
  const status = { rss: kib('VmRSS'), virtual: kib('VmSize'), data: kib('VmData') };
  return Object.values(status).every(Number.isFinite) ? status : undefined;
}

function registerMemory(registry: Registry): void {
  registry.gauge({
    name: 'process_resident_memory_bytes', help: 'Resident memory size in bytes.',
    collect(resident) {
      const status = readProcStatus();
      for (const gauge of [resident, virtual, heap]) gauge.reset();
      // Node measures RSS everywhere; the other two exist only in /proc.
      resident.set({}, status?.rss ?? process.memoryUsage.rss());
      if (!status) return;
      virtual.set({}, status.virtual);
      heap.set({}, status.data);
    },
  });
  const virtual = registry.gauge({ name: 'process_virtual_memory_bytes', help: 'Virtual memory size in bytes.' });
  const heap = registry.gauge({ name: 'process_heap_bytes', help: 'Process heap size in bytes.' });
}

/** The soft `Max open files` of /proc/self/limits (a number, or Infinity for `unlimited`). */
function readMaxFds(): number | undefined {
  try {
    const soft = /^Max open files\s+(\S+)/m.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1];
    return soft === 'unlimited' ? Infinity : soft === undefined ? undefined : Number(soft);
  } catch {
    return undefined;
  }
}

function registerFileDescriptors(registry: Registry): void {
  registry.gauge({
    name: 'process_open_fds', help: 'Number of open file descriptors.',
    collect(open) {
      open.reset();
      try {
        // Less the descriptor the listing itself holds open.
        open.set({}, readdirSync('/proc/self/fd').length - 1);
      } catch { /* not Linux: no sample */ }
    },
  });
  registry.gauge({
    name: 'process_max_fds', help: 'Maximum number of open file descriptors.',
    collect(max) {
      max.reset();
      const limit = readMaxFds();
      if (limit !== undefined) max.set({}, limit);
    },
  });
}

function startDelayMonitor(): ELDHistogram {
  const delay = monitorEventLoopDelay();
  delay.enable();
  return delay;
}

function observeGc(gcSeconds: Histogram<'kind'>): PerformanceObserver {
  const kinds: Readonly<Record<number, string>> = {
    [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
    [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
    [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
    [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
  };
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as { detail?: NodeGCPerformanceDetail }).detail?.kind;
      gcSeconds.observe({ kind: (kind !== undefined && kinds[kind]) || 'unknown' }, entry.duration / 1000);
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return observer;
}

const DELAY_STATS = [
  ['min', 'The minimum recorded event loop delay.', (h: ELDHistogram) => h.min],
  ['max', 'The maximum recorded event loop delay.', (h: ELDHistogram) => h.max],
  ['mean', 'The mean of the recorded event loop delays.', (h: ELDHistogram) => h.mean],
  ['stddev', 'The standard deviation of the recorded event loop delays.', (h: ELDHistogram) => h.stddev],
  ['p50', 'The 50th percentile of the recorded event loop delays.', (h: ELDHistogram) => h.percentile(50)],
  ['p90', 'The 90th percentile of the recorded event loop delays.', (h: ELDHistogram) => h.percentile(90)],
  ['p99', 'The 99th percentile of the recorded event loop delays.', (h: ELDHistogram) => h.percentile(99)],
] as const;

function registerEventLoop(registry: Registry, delayMonitor: () => ELDHistogram | undefined): void {
  registry.gauge({
    name: 'nodejs_eventloop_lag_seconds', help: 'Lag of event loop in seconds.',
    // How long a callback queued now waits, and the delay statistics since the previous scrape.
    async collect(lag) {
      const queued = process.hrtime.bigint();
      await new Promise((resolve) => setImmediate(resolve));
      lag.set({}, Number(process.hrtime.bigint() - queued) / 1e9);
      const delay = delayMonitor();
      for (const [gauge, read] of stats) {
        gauge.reset();
        // The first scrape starts the monitor, which has nothing to report yet.
        if (delay && delay.count > 0) gauge.set({}, read(delay) / 1e9);
      }
      delay?.reset();
    },
  });
  const stats = DELAY_STATS.map(([stat, help, read]) => [registry.gauge({ name: `nodejs_eventloop_lag_${stat}_seconds`, help }), read] as const);
}

/** Libuv request types (Node's ReqWrap classes), as `process.getActiveResourcesInfo()` names them. */
const REQUEST = /Req|^(Write|Shutdown|Connect|Send)Wrap$/;

/**
 * Active handles (sockets, servers, child processes, …) and requests (file system calls, DNS lookups,
 * writes in progress). JavaScript timers and immediates are neither, as with prom-client.
 */
export function countResources(types: readonly string[]): { handles: number; requests: number } {
  let handles = 0;
  let requests = 0;
  for (const type of types) {
    if (REQUEST.test(type)) requests += 1;
    else if (type !== 'Timeout' && type !== 'Immediate') handles += 1;
  }
  return { handles, requests };
}

function registerResources(registry: Registry): void {
  registry.gauge({
    name: 'nodejs_active_handles_total', help: 'Total number of active handles.',
    collect(handles) {
      const counts = countResources(process.getActiveResourcesInfo());
      handles.set({}, counts.handles);
      requests.set({}, counts.requests);
    },
  });
  const requests = registry.gauge({ name: 'nodejs_active_requests_total', help: 'Total number of active requests.' });
}

function registerHeap(registry: Registry): void {
  registry.gauge({
    name: 'nodejs_heap_size_total_bytes', help: 'Process heap size from Node.js in bytes.',
    collect(total) {
      const memory = process.memoryUsage();
      total.set({}, memory.heapTotal);
      used.set({}, memory.heapUsed);
      external.set({}, memory.external);
    },
  });
  const used = registry.gauge({ name: 'nodejs_heap_size_used_bytes', help: 'Process heap size used from Node.js in bytes.' });
  const external = registry.gauge({ name: 'nodejs_external_memory_bytes', help: 'Node.js external memory size in bytes.' });
  const spaceHelp = (kind: string): string => `Process heap space size ${kind} from Node.js in bytes.`;
  registry.gauge({
    name: 'nodejs_heap_space_size_total_bytes', help: spaceHelp('total'), labelNames: ['space'],
    collect(spaceTotal) {
      for (const space of getHeapSpaceStatistics()) {
        // `old_space` is labelled `old`, as prom-client does.
        const labels = { space: space.space_name.replace(/_space$/, '') };
        spaceTotal.set(labels, space.space_size);
        spaceUsed.set(labels, space.space_used_size);
        spaceAvailable.set(labels, space.space_available_size);
      }
    },
  });
  const spaceUsed = registry.gauge({ name: 'nodejs_heap_space_size_used_bytes', help: spaceHelp('used'), labelNames: ['space'] });
  const spaceAvailable = registry.gauge({ name: 'nodejs_heap_space_size_available_bytes', help: spaceHelp('available'), labelNames: ['space'] });
}
