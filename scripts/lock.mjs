// A lock file for the scripts that several processes of one checkout may run at once (two test
// files packing the same package, parallel jest runs generating the Prisma clients). The file
// names its holder (`<pid> <start time>`): a holder that is gone (killed by Ctrl-C, SIGKILL, a
// crash) leaves a lock that the next caller takes over at once, and a caller waiting on a live
// holder says which process it waits for. Synchronous on purpose: its callers are short scripts.
import { linkSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';

/** How long a caller waits for a live holder before it gives up, by default. */
export const LOCK_WAIT_MS = 10 * 60_000;
const POLL_MS = 200;

/** Sleeps the whole thread: the callers are synchronous scripts with nothing else to do. */
const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * `/proc/<pid>/stat`: the process's state and start time (clock ticks since boot), or undefined
 * where there is no procfs (then a PID alone identifies the holder).
 */
function procStat(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After the command name (in parentheses, which may hold spaces): state is field 3, start time field 22.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0], start: fields[19] };
  } catch {
    return undefined;
  }
}

/** What a lock file records about this process. */
const ownerLine = () => `${process.pid} ${procStat(process.pid)?.start ?? ''}\n`;

/**
 * Whether the process a lock names still runs: `kill(pid, 0)` answers for it (EPERM: it runs,
 * under another user); a zombie has exited, and a start time that differs from the recorded one
 * is another process that got the same PID.
 */
export function holderAlive(holder) {
  if (!holder.pid) return false;
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    if (error.code !== 'EPERM') return false;
  }
  const stat = procStat(holder.pid);
  if (!stat) return true;
  return stat.state !== 'Z' && (!holder.start || stat.start === holder.start);
}

/**
 * The holder a lock file names, or undefined when there is no lock. A folder (the lock of an
 * earlier version of these scripts, which recorded no holder) and an unreadable file name none.
 */
function holderOf(path) {
  let text;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (error.code === 'ENOENT') return undefined;
    if (error.code === 'EISDIR') return { pid: undefined };
    throw error;
  }
  const [pid, start] = text.trim().split(' ');
  const number = Number(pid);
  return { pid: Number.isInteger(number) && number > 0 ? number : undefined, start };
}

/**
 * Removes the lock of a holder that is gone. It is first renamed to a name of this process's own,
 * so two callers taking over at once never remove each other's fresh lock: the one that finds it
 * moved a live holder's lock puts it back.
 */
function takeOver(path) {
  const grave = `${path}.stale-${process.pid}`;
  rmSync(grave, { recursive: true, force: true });
  try {
    renameSync(path, grave);
  } catch (error) {
    if (error.code === 'ENOENT') return;
    throw error;
  }
  const moved = holderOf(grave);
  if (moved && holderAlive(moved)) {
    try {
      linkSync(grave, path);
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
  }
  rmSync(grave, { recursive: true, force: true });
}

/**
 * Takes the lock at `path`, waiting for a live holder at most `waitMs`; a lock whose holder is
 * gone is taken over at once. `what` names the work in the messages (`the build of packages/sql`).
 * @throws {Error} naming the holder's PID when it still holds the lock after `waitMs`.
 */
export function acquireLock(path, what, { waitMs = LOCK_WAIT_MS } = {}) {
  // Written whole under a name of our own, then linked into place: the lock is never seen empty.
  const mine = `${path}.${process.pid}`;
  writeFileSync(mine, ownerLine());
  try {
    const deadline = Date.now() + waitMs;
    let announced;
    for (;;) {
      try {
        linkSync(mine, path);
        return;
      } catch (error) {
        if (error.code !== 'EEXIST') throw error;
      }
      const holder = holderOf(path);
      if (!holder) continue;
      if (!holderAlive(holder)) {
        const named = holder.pid ? `process ${holder.pid}, which is gone` : 'no process';
        process.stderr.write(`${what}: taking over ${path}, left by ${named}\n`);
        takeOver(path);
        continue;
      }
      if (Date.now() > deadline)
        throw new Error(
          `${what}: ${path} is still held by process ${holder.pid} after ${waitMs / 1000} s`,
        );
      if (announced !== holder.pid) {
        announced = holder.pid;
        process.stderr.write(`${what}: waiting for process ${holder.pid}, which holds ${path}\n`);
      }
      sleep(POLL_MS);
    }
  } finally {
    rmSync(mine, { force: true });
  }
}

/** Releases the lock at `path` if this process holds it. */
export function releaseLock(path) {
  const holder = holderOf(path);
  if (holder?.pid !== process.pid) return;
  try {
    unlinkSync(path);
  } catch (error) {
    if (error.code !== 'ENOENT') throw error;
  }
}

/** Runs `work` holding the lock at `path` (see {@link acquireLock}); releases it however `work` ends. */
export function withLock(path, what, work, options) {
  acquireLock(path, what, options);
  try {
    return work();
  } finally {
    releaseLock(path);
  }
}
