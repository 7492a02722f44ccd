/**
 * The "Sign in and sync" panel of /progress/ (src/components/SyncPanel.astro), loaded when the device is signed in
 * or the learner first uses the panel (`first`: the button whose click loaded it, acted on now). Shows one of three
 * states (signed out, the recovery key once, signed in), the status line in a live region, and every failure in
 * words. Starts the sync triggers (auto.ts) once signed in.
 */
import {
  createAccount,
  deleteAccount,
  NeedsRecoveryKey,
  signInWithPasskey,
  signInWithRecoveryKey,
  signOut,
} from './account.ts';
import { SyncApiError } from './api.ts';
import { startAutoSync } from './auto.ts';
import { lastSyncStatus, newNode, runSync, SYNC_STATUS_EVENT, type SyncStatusDetail } from './session.ts';
import { checkServerUrl, PROBLEM_TEXT, statusLine } from '../../lib/sync/status-text.ts';
import { RecoveryKeyError } from '../../lib/sync/recovery-key.ts';
import { WrongKeyError } from '../../lib/sync/keys.ts';
import { eventsToPush } from '../../lib/sync/plan.ts';
import { readSyncLocal, readSyncSession, saveTypedServerUrl, typedServerUrl } from '../../store/sync-state.ts';
import { progressStore } from '../progress-boot.ts';

type View = 'signed-out' | 'key' | 'signed-in';

/** Words for a failure of a sign-in or account action. */
export function failureText(err: unknown, action: 'create' | 'signin' | 'recovery' | 'other'): string {
  if (err instanceof RecoveryKeyError || err instanceof WrongKeyError) return err.message;
  if (err instanceof SyncApiError) {
    if (action === 'recovery' && err.status === 401) return 'No account on this sync server has that recovery key.';
    if (action === 'signin' && err.status === 401)
      return err.serverMessage ?? 'This passkey belongs to no account on this sync server.';
    return err.message;
  }
  const name = (err as { name?: string } | null)?.name;
  if (name === 'NotAllowedError' || name === 'AbortError')
    return 'The passkey prompt was closed or timed out. Nothing changed; try again when ready.';
  if (name === 'InvalidStateError') return 'This device already has a passkey for Saturate: sign in with it instead.';
  if (err instanceof Error && /WebAuthn is not supported/.test(err.message))
    return 'This browser cannot use passkeys. Sign in with your recovery key instead.';
  return `That did not work: ${err instanceof Error ? err.message : String(err)}`;
}

/** Wires the panel. */
export async function startSyncPanel(panel: HTMLElement, first?: HTMLElement): Promise<void> {
  const q = <T extends HTMLElement>(sel: string) => panel.querySelector<T>(sel)!;
  const status = q('[data-sync-status]');
  const error = q('[data-sync-error]');
  const serverInput = q<HTMLInputElement>('[data-sync-server]');
  const recoveryForm = q<HTMLFormElement>('[data-sync-recovery-form]');
  const recoveryInput = q<HTMLTextAreaElement>('[data-sync-recovery-input]');
  const recoveryToggle = q<HTMLButtonElement>('[data-sync-action="recovery"]');
  const confirmBox = q('[data-sync-confirm]');
  const builtUrl = panel.dataset['syncUrl'] ?? '';
  if (!builtUrl && !serverInput.value) serverInput.value = typedServerUrl() ?? '';
  let finishWithKey: ((text: string) => Promise<void>) | null = null;
  let recoveryText = '';

  const show = (view: View) => {
    q('[data-sync-signed-out]').hidden = view !== 'signed-out';
    q('[data-sync-key]').hidden = view !== 'key';
    q('[data-sync-signed-in]').hidden = view !== 'signed-in';
  };
  const say = (text: string, state: 'ok' | 'busy' | 'error' = 'ok') => {
    status.textContent = text;
    status.dataset['state'] = state;
  };
  const fail = (text: string | null) => {
    error.textContent = text ?? '';
    error.hidden = !text;
  };
  const busy = (on: boolean) => {
    for (const b of panel.querySelectorAll<HTMLButtonElement>('button')) b.disabled = on;
    panel.setAttribute('aria-busy', String(on));
  };
  const serverUrl = (): string | null => {
    if (builtUrl) return builtUrl;
    const c = checkServerUrl(serverInput.value);
    if (!c.ok) {
      fail(c.message);
      serverInput.setAttribute('aria-invalid', 'true');
      serverInput.focus();
      return null;
    }
    serverInput.removeAttribute('aria-invalid');
    saveTypedServerUrl(c.url);
    return c.url;
  };

  const refresh = async (d: SyncStatusDetail | null = lastSyncStatus()) => {
    const session = await readSyncSession();
    if (!session) {
      if (q('[data-sync-key]').hidden) show('signed-out');
      say(
        navigator.onLine === false
          ? 'Not signed in. You are offline.'
          : 'Not signed in. Progress is kept on this device.',
      );
      return;
    }
    if (q('[data-sync-key]').hidden) show(d?.problem === 'session-expired' ? 'signed-out' : 'signed-in');
    if (d?.state === 'syncing') return say('Syncing…', 'busy');
    if (d?.state === 'error') return say(d.message ?? PROBLEM_TEXT[d.problem ?? 'unreachable'], 'error');
    const local = await readSyncLocal(newNode);
    const events = (await (await progressStore()).loadProgress()).events;
    const pending = eventsToPush(local, events).length + local.pending.length;
    say(statusLine({ lastSyncAt: local.lastSyncAt, devices: local.devices, pending }, Date.now()));
  };

  const signedIn = async (message: string) => {
    startAutoSync();
    fail(null);
    say(message);
    const d = await runSync();
    await refresh(d);
  };

  const act = async (action: string) => {
    fail(null);
    switch (action) {
      case 'create': {
        const url = serverUrl();
        if (!url) return;
        say('Creating your account: follow your device’s passkey prompt…', 'busy');
        const { recoveryKey } = await createAccount(url);
        recoveryText = recoveryKey;
        q('[data-sync-key-text]').textContent = recoveryKey.replaceAll('-', ' '); // groups wrap at spaces
        show('key');
        q('#sync-key-h').focus();
        say('Account created. Save your recovery key, then your progress syncs.');
        void import('./qr.ts').then((m) =>
          q('[data-sync-key-qr]').replaceChildren(m.qrSvg(recoveryKey, 'Recovery key as a QR code')),
        );
        return;
      }
      case 'signin': {
        const url = serverUrl();
        if (!url) return;
        say('Signing in: follow your device’s passkey prompt…', 'busy');
        try {
          await signInWithPasskey(url);
        } catch (err) {
          if (!(err instanceof NeedsRecoveryKey)) throw err;
          finishWithKey = err.finish;
          openRecovery(err.message);
          say(err.message);
          return;
        }
        return signedIn('Signed in. Syncing…');
      }
      case 'recovery':
        return openRecovery(null, recoveryForm.hidden !== false);
      case 'copy':
        await navigator.clipboard.writeText(recoveryText);
        return say('Recovery key copied. Paste it somewhere safe.');
      case 'print':
        return printKey(recoveryText, q('[data-sync-key-qr]').innerHTML);
      case 'saved':
        recoveryText = '';
        q('[data-sync-key-text]').textContent = '';
        q('[data-sync-key-qr]').replaceChildren();
        show('signed-in');
        return signedIn('Syncing…');
      case 'sync':
        return refresh(await runSync());
      case 'signout':
        await signOut();
        show('signed-out');
        return say('Signed out. Your progress stays on this device.');
      case 'delete':
        confirmBox.hidden = false;
        return q('#sync-confirm-h').focus();
      case 'delete-cancel':
        confirmBox.hidden = true;
        return q<HTMLButtonElement>('[data-sync-action="delete"]').focus();
      case 'delete-confirm':
        say('Deleting your account…', 'busy');
        await deleteAccount();
        confirmBox.hidden = true;
        show('signed-out');
        return say('Account deleted from the sync server. Your progress stays on this device.');
    }
  };

  const openRecovery = (help: string | null, open = true) => {
    recoveryForm.hidden = !open;
    recoveryToggle.setAttribute('aria-expanded', String(open));
    if (help) q('[data-sync-recovery-help]').textContent = help;
    if (open) recoveryInput.focus();
  };

  const run = async (what: string, kind: Parameters<typeof failureText>[1], fn: () => Promise<void>) => {
    busy(true);
    try {
      await fn();
    } catch (err) {
      fail(failureText(err, kind));
      say(what === 'delete-confirm' ? 'Your account was not deleted.' : 'Not signed in.', 'error');
      if (kind === 'recovery') recoveryInput.focus();
    } finally {
      busy(false);
    }
  };

  recoveryForm.addEventListener('submit', (e) => {
    e.preventDefault();
    void run('recovery', 'recovery', async () => {
      const text = recoveryInput.value;
      if (finishWithKey) await finishWithKey(text);
      else {
        const url = serverUrl();
        if (!url) return;
        say('Signing in with your recovery key…', 'busy');
        await signInWithRecoveryKey(url, text);
      }
      finishWithKey = null;
      recoveryInput.value = '';
      recoveryForm.hidden = true;
      await signedIn('Signed in. Syncing…');
    });
  });
  const onClick = (button: HTMLElement) => {
    const action = button.dataset['syncAction']!;
    const kind = action === 'create' ? 'create' : action === 'signin' ? 'signin' : 'other';
    void run(action, kind, () => act(action));
  };
  panel.addEventListener('click', (e) => {
    const button = (e.target as HTMLElement).closest<HTMLElement>('[data-sync-action]');
    if (button) onClick(button);
  });
  window.addEventListener(SYNC_STATUS_EVENT, (e) => void refresh((e as CustomEvent<SyncStatusDetail>).detail));
  setInterval(() => void refresh(), 30_000);
  if (await readSyncSession()) startAutoSync();
  await refresh();
  if (first) onClick(first);
}

/** Prints the recovery key alone (a frame of its own, so the page around it is not printed). */
function printKey(text: string, qrSvg: string): void {
  const frame = document.createElement('iframe');
  frame.setAttribute('aria-hidden', 'true');
  frame.style.cssText = 'position:fixed;width:0;height:0;border:0;';
  frame.srcdoc = `<!doctype html><title>Saturate recovery key</title><body style="font:16px system-ui;margin:2rem"><h1>Saturate recovery key</h1><p>Signs in to your synced progress on any device. Keep it private.</p><p style="font:20px ui-monospace,monospace;letter-spacing:.05em;word-spacing:.3em">${text.replace(/[^0-9A-Z-]/g, '')}</p><div style="width:220px">${qrSvg}</div></body>`;
  frame.addEventListener('load', () => {
    frame.contentWindow?.print();
    setTimeout(() => frame.remove(), 60_000);
  });
  document.body.append(frame);
}
