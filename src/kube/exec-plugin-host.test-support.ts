/**
 * A stand-in for loom in exec-credential.test.ts: asks for the credential of the plugin named in its
 * first argument, then exits through `process.exit` when a line arrives on its stdin, as loom does
 * after a signal or at the end of the shutdown grace period, while the plugin still runs.
 */
import { execCredentialSource } from './exec-credential.ts';

const [command] = process.argv.slice(2);
if (!command) throw new Error('usage: exec-plugin-host.test-support.ts <plugin>');
const source = execCredentialSource({ command, args: [], env: [], apiVersion: 'client.authentication.k8s.io/v1', provideClusterInfo: false }, () => ({}));
source().catch((error: unknown) => process.stderr.write(`${String(error)}\n`));
process.stdin.once('data', () => process.exit(0));
