/**
 * Sending one e-mail over SMTP with nodemailer (SMTP_URL: smtp:// or smtps://, credentials in the
 * URL). The only place the bridge speaks SMTP; what to send and when is decided above it (the mail
 * outbox). The URL's credentials go to nodemailer only, never to a log.
 */
import nodemailer from 'nodemailer';

export interface MailConfig {
  /** SMTP_URL: smtp:// or smtps://, credentials in the URL (never logged). */
  url: string;
  /** MAIL_FROM */
  from: string;
}

export interface Mail {
  to: string;
  subject: string;
  /** The plain-text part. */
  text: string;
  /** The HTML part (everything from users already escaped). */
  html: string;
  /** A stable Message-ID, so a receiver can tell a resend (a crash right after the server accepted it) from a new mail. */
  messageId?: string;
}

export interface Mailer {
  /** Resolves once the SMTP server accepted the mail; rejects with the server's refusal. */
  send(mail: Mail): Promise<void>;
  close(): void;
}

/** Slow servers are given this long per step (connect, greeting, each command). */
const STEP_TIMEOUT_MS = 20_000;

export function smtpMailer(config: MailConfig): Mailer {
  const transport = nodemailer.createTransport({
    url: config.url,
    connectionTimeout: STEP_TIMEOUT_MS,
    greetingTimeout: STEP_TIMEOUT_MS,
    socketTimeout: STEP_TIMEOUT_MS,
    // nodemailer's own logger would print the session; the bridge logs outcomes itself.
    logger: false,
    debug: false,
  });
  return {
    async send(mail) {
      await transport.sendMail({
        from: config.from,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        ...(mail.messageId ? { messageId: mail.messageId } : {}),
      });
    },
    close() {
      transport.close();
    },
  };
}

/** Where mail goes, in words a log may carry: the host and port, never the user or password. */
export function mailServerLabel(config: MailConfig): string {
  const u = new URL(config.url);
  return `${u.protocol}//${u.host}`;
}
