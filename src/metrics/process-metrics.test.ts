import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, openSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { Registry } from './exposition.ts';
import { countResources, registerProcessMetrics, type ProcessMetrics } from './process-metrics.ts';

const run = promisify(execFile);
const linux = process.platform === 'linux';

const opened: ProcessMetrics[] = [];
afterEach(() => {
  for (const metrics of opened.splice(0)) metrics.close();
});

function processRegistry(): Registry {
  const registry = new Registry();
  opened.push(registerProcessMetrics(registry));
  return registry;
}

/** The value of the sample `series` (name and labels, as printed), or undefined if absent. */
function valueOf(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  if (line === undefined) return undefined;
  const value = line.slice(series.length + 1);
  return value === '+Inf' ? Infinity : Number(value);
}

function busyFor(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) { /* hold the event loop */ }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('process metrics', () => {
  it('are declared with the types dashboards expect', async () => {
    const text = await processRegistry().metrics();
    const types = Object.fromEntries([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => [m[1]!, m[2]!] as const));
    expect(types).toEqual({
      process_cpu_user_seconds_total: 'counter', process_cpu_system_seconds_total: 'counter', process_cpu_seconds_total: 'counter',
      process_start_time_seconds: 'gauge', process_resident_memory_bytes: 'gauge', process_virtual_memory_bytes: 'gauge',
      process_heap_bytes: 'gauge', process_open_fds: 'gauge', process_max_fds: 'gauge',
      nodejs_eventloop_lag_seconds: 'gauge', nodejs_eventloop_lag_min_seconds: 'gauge', nodejs_eventloop_lag_max_seconds: 'gauge',
      nodejs_eventloop_lag_mean_seconds: 'gauge', nodejs_eventloop_lag_stddev_seconds: 'gauge', nodejs_eventloop_lag_p50_seconds: 'gauge',
      nodejs_eventloop_lag_p90_seconds: 'gauge', nodejs_eventloop_lag_p99_seconds: 'gauge',
      nodejs_active_handles_total: 'gauge', nodejs_active_requests_total: 'gauge',
      nodejs_heap_size_total_bytes: 'gauge', nodejs_heap_size_used_bytes: 'gauge', nodejs_external_memory_bytes: 'gauge',
      nodejs_heap_space_size_total_bytes: 'gauge', nodejs_heap_space_size_used_bytes: 'gauge', nodejs_heap_space_size_available_bytes: 'gauge',
      nodejs_version_info: 'gauge', nodejs_gc_duration_seconds: 'histogram',
    });
  });

  it('report CPU time as a growing total of user and system', async () => {
    const registry = processRegistry();
    const first = await registry.metrics();
    const start = process.cpuUsage();
    while (process.cpuUsage(start).user < 50_000) busyFor(1); // 50 ms of CPU, however busy the machine
    const second = await registry.metrics();
    const [user, system, total] = ['user_', 'system_', ''].map((kind) => valueOf(second, `process_cpu_${kind}seconds_total`)!);
    expect(total).toBeCloseTo(user! + system!, 6);
    // Since the process started, not since the registry was made: the test runner has used more than this.
    expect(valueOf(first, 'process_cpu_seconds_total')).toBeGreaterThan(0.05);
    expect(total! - valueOf(first, 'process_cpu_seconds_total')!).toBeGreaterThanOrEqual(0.04);
    expect(total).toBeLessThanOrEqual(process.cpuUsage().user / 1e6 + process.cpuUsage().system / 1e6 + 0.01);
  });

  it('report the start time, the heap and the Node.js version', async () => {
    const text = await processRegistry().metrics();
    expect(Math.abs(valueOf(text, 'process_start_time_seconds')! - (Date.now() / 1000 - process.uptime()))).toBeLessThanOrEqual(1);
    const used = valueOf(text, 'nodejs_heap_size_used_bytes')!;
    expect(used).toBeGreaterThan(1e6);
    expect(used).toBeLessThanOrEqual(valueOf(text, 'nodejs_heap_size_total_bytes')!);
    expect(valueOf(text, 'nodejs_external_memory_bytes')).toBeGreaterThan(0);
    const [major, minor, patch] = process.versions.node.split('.');
    expect(valueOf(text, `nodejs_version_info{version="${process.version}",major="${major}",minor="${minor}",patch="${patch}"}`)).toBe(1);
  });

  it('report each heap space under its name without the _space suffix', async () => {
    const text = await processRegistry().metrics();
    const spaces = [...text.matchAll(/^nodejs_heap_space_size_used_bytes\{space="([^"]+)"\}/gm)].map((m) => m[1]);
    expect(spaces).toEqual(expect.arrayContaining(['new', 'old', 'code', 'large_object']));
    expect(spaces.filter((s) => s!.endsWith('_space'))).toEqual([]);
    for (const kind of ['total', 'used', 'available']) expect(valueOf(text, `nodejs_heap_space_size_${kind}_bytes{space="old"}`)).toBeGreaterThanOrEqual(0);
    expect(valueOf(text, 'nodejs_heap_space_size_used_bytes{space="old"}')).toBeGreaterThan(0);
  });

  it.runIf(linux)('report memory from /proc on Linux', async () => {
    const text = await processRegistry().metrics();
    const resident = valueOf(text, 'process_resident_memory_bytes')!;
    const rss = process.memoryUsage.rss();
    expect(resident).toBeGreaterThan(rss * 0.8);
    expect(resident).toBeLessThan(rss * 1.25);
    expect(valueOf(text, 'process_virtual_memory_bytes')).toBeGreaterThan(resident);
    expect(valueOf(text, 'process_heap_bytes')).toBeGreaterThan(valueOf(text, 'nodejs_heap_size_used_bytes')!);
  });

  it.runIf(linux)('count open file descriptors, under the soft limit the shell reports', async () => {
    const registry = processRegistry();
    const before = valueOf(await registry.metrics(), 'process_open_fds')!;
    const fds = Array.from({ length: 5 }, () => openSync('/dev/null', 'r'));
    const text = await registry.metrics();
    for (const fd of fds) closeSync(fd);
    expect(valueOf(text, 'process_open_fds')).toBeGreaterThanOrEqual(before + 5);
    expect(before).toBeGreaterThan(2);
    const { stdout } = await run('sh', ['-c', 'ulimit -n']);
    expect(valueOf(text, 'process_max_fds')).toBe(stdout.trim() === 'unlimited' ? Infinity : Number(stdout));
  });

  it('report event loop delay statistics from the second scrape, for the time since the previous one', async () => {
    const registry = processRegistry();
    const first = await registry.metrics();
    expect(valueOf(first, 'nodejs_eventloop_lag_seconds')).toBeGreaterThan(0);
    expect(valueOf(first, 'nodejs_eventloop_lag_max_seconds')).toBeUndefined(); // the first scrape starts the monitor
    // A block far longer than a busy machine keeps a process off the CPU, so the scrape after the
    // next one can tell the statistics were reset, whatever the load.
    await sleep(30);
    busyFor(1_000);
    await sleep(30);
    const blocked = await registry.metrics();
    expect(valueOf(blocked, 'nodejs_eventloop_lag_max_seconds')).toBeGreaterThanOrEqual(0.95);
    for (const stat of ['min', 'mean', 'stddev', 'p50', 'p90', 'p99']) expect(valueOf(blocked, `nodejs_eventloop_lag_${stat}_seconds`)).toBeGreaterThanOrEqual(0);
    await sleep(100);
    const quiet = await registry.metrics();
    expect(valueOf(quiet, 'nodejs_eventloop_lag_max_seconds')).toBeLessThan(0.95); // reset by the previous scrape
  });

  it('time garbage collections by kind once scraped, and stop at close', async () => {
    const registry = new Registry();
    const metrics = registerProcessMetrics(registry);
    opened.push(metrics);
    const gcCount = async (): Promise<number> => [...(await registry.metrics()).matchAll(/^nodejs_gc_duration_seconds_count\{kind="\w+"\} (\d+)$/gm)]
      .reduce((sum, m) => sum + Number(m[1]), 0);
    await registry.metrics();
    const garbage = (): void => void Array.from({ length: 1000 }, () => new Array<number>(10_000).fill(1));
    garbage();
    await sleep(20);
    const counted = await gcCount();
    expect(counted).toBeGreaterThan(0);
    expect(await registry.metrics()).toMatch(/^nodejs_gc_duration_seconds_bucket\{kind="minor",le="0.001"\} \d+$/m);
    metrics.close();
    garbage();
    await sleep(20);
    expect(await gcCount()).toBe(counted);
  });

  it('do not keep the process alive once scraped', async () => {
    const script = `
      const { createMetrics } = await import(${JSON.stringify(new URL('./metrics.ts', import.meta.url).href)});
      const metrics = createMetrics();
      await metrics.registry.metrics();
      await new Promise((resolve) => setTimeout(resolve, 50));
      console.log((await metrics.registry.metrics()).includes('nodejs_eventloop_lag_max_seconds '));`;
    // The bound only stops a process kept alive: a loaded machine takes seconds to start one.
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { timeout: 50_000 });
    expect(stdout.trim()).toBe('true');
  });
});

describe('countResources', () => {
  it('tells libuv requests from handles, and counts neither timers nor immediates', () => {
    const types = ['FSReqCallback', 'FSReqPromise', 'GetAddrInfoReqWrap', 'WriteWrap', 'ShutdownWrap', 'TCPSocketWrap', 'TCPServerWrap', 'TTYWrap', 'PipeWrap', 'ProcessWrap', 'Timeout', 'Immediate'];
    expect(countResources(types)).toEqual({ handles: 5, requests: 5 });
  });

  it('sees a listening server as a handle', async () => {
    const { createServer } = await import('node:net');
    const before = countResources(process.getActiveResourcesInfo()).handles;
    const server = createServer().listen(0, '127.0.0.1');
    await once(server, 'listening');
    const during = countResources(process.getActiveResourcesInfo()).handles;
    server.close();
    expect(during).toBe(before + 1);
  });
});
