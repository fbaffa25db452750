import { spawnSync } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runInitIn, temporaryDirectories } from './init.test-support.ts';

const dirs = temporaryDirectories();
afterAll(() => dirs.removeAll());

const JSONATA_FILES = ['crd.yaml', 'controller.yaml', 'example.yaml', 'render.golden.yaml', 'package.json', '.gitignore', 'README.md'];

describe('loom init', () => {
  it('prints its help for --help', async () => {
    const run = await runInitIn(await dirs.make(), ['--help']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toMatch(/^usage: loom init \[DIR\] --kind KIND/);
  });

  it('is the init command of loom', () => {
    const main = fileURLToPath(new URL('main.ts', import.meta.url));
    const result = spawnSync(process.execPath, [main, 'init', '--help'], { encoding: 'utf8', timeout: 50_000 });
    expect(result.stdout).toMatch(/^usage: loom init /);
    expect(result.status).toBe(0);
  });

  it('writes the scaffold into DIR, creating it, and says what it wrote and what to do next', async () => {
    const cwd = await dirs.make();
    const run = await runInitIn(cwd, ['site', '--kind', 'Website']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect((await readdir(join(cwd, 'site'))).sort()).toEqual([...JSONATA_FILES].sort());
    expect(run.stdout).toMatch(/^loom init: a CompositeController for Website \(example\.com\/v1alpha1\) with a JSONata hook, in site:\n/);
    for (const file of JSONATA_FILES) expect(run.stdout).toContain(`\n  ${file}\n`);
    expect(run.stdout).toContain('\n  cd site\n  npm install\n  npm test ');
    expect(run.stdout).not.toContain('npm start');
  });

  it('takes the group and version it is given', async () => {
    const cwd = await dirs.make();
    expect(await runInitIn(cwd, ['--kind', 'Website', '--group', 'web.acme.io', '--version', 'v1beta1'])).toMatchObject({ code: 0 });
    expect(await readFile(join(cwd, 'crd.yaml'), 'utf8')).toContain('  name: websites.web.acme.io\n');
    expect(await readFile(join(cwd, 'example.yaml'), 'utf8')).toContain('apiVersion: web.acme.io/v1beta1\n');
  });

  it('tells a TypeScript user to serve the hook', async () => {
    const run = await runInitIn(await dirs.make(), ['--kind', 'Website', '--hook', 'typescript']);
    expect(run.stdout).toContain('with a TypeScript hook, in .:\n');
    expect(run.stdout).toContain('\n  npm start ');
    expect(run.stdout).not.toContain('cd ');
  });

  it('refuses a bad kind with exit code 2, writing nothing', async () => {
    const cwd = await dirs.make();
    const run = await runInitIn(cwd, ['out', '--kind', 'website']);
    expect(run).toEqual({
      code: 2,
      stdout: '',
      stderr: 'loom init: --kind: "website" is not a kind: a letter and then letters or digits, UpperCamelCase like Website (did you mean Website?)\n' +
        "run 'loom init --help' for its flags\n",
    });
    expect(await readdir(cwd)).toEqual([]);
  });

  it('names every bad flag at once', async () => {
    const run = await runInitIn(await dirs.make(), ['--kind', 'Web-Site', '--group', 'acme', '--version', '1.0', '--hook', 'go']);
    expect(run.code).toBe(2);
    expect(run.stderr.split('\n').filter((line) => line.startsWith('loom init: --')).map((line) => line.split(':')[1])).toEqual([' --kind', ' --group', ' --version', ' --hook']);
  });

  it.each([
    [[], '--kind is required'],
    [['a', 'b', '--kind', 'Website'], 'expected one directory, got 2: a b'],
    [['--kind', 'Website', '--nosuch'], 'unknown flag --nosuch'],
  ])('exits 2 for %j', async (args, message) => {
    const run = await runInitIn(await dirs.make(), args);
    expect(run).toMatchObject({ code: 2, stdout: '' });
    expect(run.stderr).toContain(`loom init: ${message}`);
  });

  it('refuses a non-empty directory with exit code 2, naming the files it would replace, and writes nothing', async () => {
    const cwd = await dirs.make();
    await writeFile(join(cwd, 'README.md'), 'mine\n');
    await writeFile(join(cwd, 'notes.txt'), 'mine\n');
    const run = await runInitIn(cwd, ['--kind', 'Website']);
    expect(run).toEqual({
      code: 2,
      stdout: '',
      stderr: 'loom init: . is not empty; --force writes the scaffold into it anyway (it would replace README.md; other files stay)\n',
    });
    expect((await readdir(cwd)).sort()).toEqual(['README.md', 'notes.txt']);
    expect(await readFile(join(cwd, 'README.md'), 'utf8')).toBe('mine\n');
  });

  it('says when a non-empty directory holds none of its files', async () => {
    const cwd = await dirs.make();
    await writeFile(join(cwd, 'notes.txt'), 'mine\n');
    const run = await runInitIn(cwd, ['--kind', 'Website']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('(no file of it would be replaced; other files stay)');
  });

  it('refuses a DIR that is a file with exit code 2', async () => {
    const cwd = await dirs.make();
    await writeFile(join(cwd, 'site'), 'mine\n');
    expect(await runInitIn(cwd, ['site', '--kind', 'Website'])).toEqual({ code: 2, stdout: '', stderr: 'loom init: site is not a directory\n' });
  });

  it('counts a directory holding only .git as empty', async () => {
    const cwd = await dirs.make();
    await mkdir(join(cwd, '.git'));
    expect(await runInitIn(cwd, ['--kind', 'Website'])).toMatchObject({ code: 0, stderr: '' });
  });

  it('with --force, replaces its own files, keeps the others and says which it replaced', async () => {
    const cwd = await dirs.make();
    await writeFile(join(cwd, 'README.md'), 'mine\n');
    await writeFile(join(cwd, 'notes.txt'), 'mine\n');
    const run = await runInitIn(cwd, ['--kind', 'Website', '--force']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain('\n  README.md (replaced)\n');
    expect(run.stdout).toContain('\n  crd.yaml\n');
    expect(await readFile(join(cwd, 'README.md'), 'utf8')).toMatch(/^# website-controller\n/);
    expect(await readFile(join(cwd, 'notes.txt'), 'utf8')).toBe('mine\n');
  });
});
