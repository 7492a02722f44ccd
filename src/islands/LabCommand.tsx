/**
 * On a hosted copy of the site: the exact command that lets this origin use the learner's own lab
 * server, with a copy button, and the plain truth for phones (a phone cannot reach a lab server on
 * another machine this way: it has the in-page simulator).
 */
import { useEffect, useId, useState } from 'react';
import { labServerCommand } from '../lib/lab/command.ts';

/** The command line and the phone note; renders nothing where no flag is needed. */
export default function LabCommand() {
  const id = useId();
  const [command, setCommand] = useState<string | null>(null);
  const [host, setHost] = useState('');
  const [copied, setCopied] = useState('');
  useEffect(() => {
    setCommand(labServerCommand(location.origin));
    setHost(location.host);
  }, []);
  if (!command) return null;
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(command);
      setCopied('Copied.');
    } catch {
      // Clipboard refused (permissions, an old browser): select the text so a long-press or Ctrl+C copies it.
      const code = document.getElementById(`${id}-cmd`);
      if (code) getSelection()?.selectAllChildren(code);
      setCopied('Selected: copy it with Ctrl+C or a long-press.');
    }
  };
  return (
    <div className="lab-command" data-lab-command>
      <p className="muted" id={`${id}-what`}>
        This page is hosted at {host}. On the machine with the GPU, start the lab server so this page may call it, then
        paste the URL it prints above:
      </p>
      <div className="lab-command-row">
        <code id={`${id}-cmd`} aria-describedby={`${id}-what`}>
          {command}
        </code>
        <button type="button" className="button secondary" onClick={() => void copy()}>
          Copy
        </button>
        <span role="status" className="muted">
          {copied}
        </span>
      </div>
      <p className="muted">
        This works in a browser on that same machine (it reaches the server at 127.0.0.1). A phone cannot reach a lab
        server on another machine this way: on a phone, use <strong>Start the simulation</strong>.
      </p>
    </div>
  );
}
