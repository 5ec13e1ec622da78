/**
 * What a message carries (text, cards, buttons, a rating, a file), forms and attachments: the
 * values core and the surfaces exchange through the port (core/surface.ts re-exports them).
 */
export interface Button {
  /** Core's action id, handed back unchanged in `BridgeCore.action` (e.g. `answer.retry`). */
  action: string;
  label: string;
  /** Opaque value handed back with the action (core keeps it short: an id). */
  value: string;
  style?: 'primary' | 'danger';
}

/**
 * A rich item (a listing): a card of a Slack carousel (or section+image blocks where the workspace
 * refuses cards), a Discord container, a table row in the shell.
 */
export interface Card {
  title: string;
  url?: string;
  imageUrl?: string;
  fields: Array<{ label: string; value: string }>;
  footer?: string;
  /** A short status in words shown as a badge next to the title ("For sale", "Coming soon"). */
  badge?: string;
  /** One line under the title, for compact cards (a listing: price, beds/baths, status in words). */
  subtitle?: string;
  /** A few words under the subtitle, for compact cards (a listing: its city and description's start). */
  body?: string;
  /** The card's own buttons (a listing: Details, Ask about a viewing). */
  actions?: Button[];
  /**
   * A detailed card's facts grouped as a reader takes them in ("Price and size", "The home", ...);
   * `fields` holds the same facts flat, for surfaces that show no groups.
   */
  groups?: CardGroup[];
  /** A detailed card's photos, shown as a gallery (never as facts). */
  photos?: string[];
}

export interface CardGroup {
  title: string;
  fields: Array<{ label: string; value: string }>;
}

/**
 * A listing as a platform's rich link preview shows it (Slack's Work Object for a pasted listing
 * link): its figures by name, its first photo, the full listing and what one can do about it.
 */
export interface ListingPreview {
  /** The service's listing id. */
  id: string;
  /** The listing's own URL (the link posted may differ in case or a trailing slash). */
  url: string;
  /** Its address (or MLS number). */
  title: string;
  price?: string;
  bedsBaths?: string;
  area?: string;
  /** In words: "For sale", "Coming soon"... */
  status: string;
  city?: string;
  mls?: string;
  photo?: string;
  description?: string;
  /** The full listing, as `/listing show` shows it. */
  detail: Card;
  /** Ask about a viewing; Talk to a human. */
  actions: Button[];
}

/** A table: a caption, a header row and rows of the same length, every cell text. */
export interface DataTable {
  caption: string;
  header: string[];
  rows: string[][];
  /**
   * The table holds what the message's text says (figures, not a page of cards): where the table
   * shows, the text is not shown again beside it (it stays the message's plain text, for
   * notifications and where the table is refused).
   */
  sameAsText?: boolean;
}

/**
 * Counts over a period, step by step (a day): several series on one axis (conversations, handoffs,
 * votes). Every value is a count, so a surface that shows fewer steps may add neighbours together.
 */
export interface TrendChart {
  title: string;
  /** One label per step ("11-03"), in order. */
  categories: string[];
  series: Array<{ name: string; values: number[] }>;
  xLabel?: string;
  yLabel?: string;
}

export interface FileUpload {
  name: string;
  mime: string;
  data: Buffer;
  title?: string;
}

export interface OutMessage {
  /**
   * The message's plain text. For answers this is exactly the service's text (for the part this
   * message carries): surfaces put it in Slack's `text` / Discord's `content` unchanged and never
   * append anything to it except while `typing` is set.
   */
  text: string;
  /** The text is Markdown (answers, notices): surfaces may render it in blocks/embeds. */
  markdown?: boolean;
  /**
   * The message's plain text (Slack's `text`: notifications, search, what a client without blocks
   * shows) is the Markdown as the platform shows it (links as links), not its source. For messages
   * core composes (a handoff ticket); never an answer, whose text stays the service's words.
   */
  asShown?: boolean;
  /** Still streaming: a surface may show a typing mark after the text. */
  typing?: boolean;
  /** A short status line shown under the text, never inside it (e.g. "Answer interrupted ..."). */
  notice?: string;
  cards?: Card[];
  /**
   * The same items as a table people compare across (a page of listings): where the surface shows
   * tables (Slack's data_table), only the first few cards go beside it; elsewhere the cards as ever.
   */
  table?: DataTable;
  /**
   * The trend `file` pictures (its PNG), for a surface that draws charts itself (Slack's
   * data_visualization block): where it does, the chart is shown instead of the file.
   */
  chart?: TrendChart;
  buttons?: Button[];
  /** A way to rate this (complete) answer: Slack's feedback buttons, two buttons elsewhere. */
  feedback?: FeedbackPrompt;
  file?: FileUpload;
}

/**
 * Rating an answer. A press comes back as `BridgeCore.action(inv, action, positive | negative)`, like
 * a button; surfaces without a native rating control render it as two buttons (👍 and 👎).
 */
export interface FeedbackPrompt {
  action: string;
  /** The value handed back for a positive vote. */
  positive: string;
  /** The value handed back for a negative vote. */
  negative: string;
}

/** The two buttons a surface without a native rating control shows for `feedback`. */
export function feedbackButtons(f: FeedbackPrompt): Button[] {
  return [
    { action: f.action, label: '👍', value: f.positive },
    { action: f.action, label: '👎', value: f.negative },
  ];
}

/** What an assistant surface (Slack's assistant pane) shows when a new thread opens. */
export interface AssistantIntro {
  /** Posted in the new thread. */
  greeting: string;
  /** 1 to 4 suggestions: `title` is shown, `message` is sent when picked. */
  prompts: Array<{ title: string; message: string }>;
}

export interface FormField {
  name: string;
  label: string;
  /**
   * `select`: one of `options` (a list); `choice`: one of a few `options` shown all at once (a
   * rating: Discord's radio group; a select where the surface has none).
   */
  kind: 'text' | 'textarea' | 'number' | 'select' | 'choice' | 'boolean' | 'channel';
  /** A key or password: never pre-filled, never kept between a form's steps, never shown back. */
  secret?: boolean;
  required: boolean;
  options?: Array<{ value: string; label: string }>;
  initial?: string;
  hint?: string;
  /** Fields are grouped for surfaces with small forms (Discord: 5 inputs per modal). */
  group: string;
}

export interface FormSpec {
  /** Core's form id, handed back in `BridgeCore.submitForm` (e.g. `listing.create`). */
  id: string;
  title: string;
  /** Opaque state handed back on submit (e.g. the listing key being updated). */
  state: string;
  fields: FormField[];
  submitLabel?: string;
}

/**
 * A form's outcome. `shown`: core already showed it (replaced the message the form came from, or
 * told the person): the surface closes the form and adds nothing.
 */
export type FormResult =
  | { ok: true; message?: OutMessage; shown?: boolean }
  | { ok: false; errors: Record<string, string> };

export interface Attachment {
  /** The platform's file id or URL: whatever `fetchAttachment` needs. */
  id: string;
  name: string;
  mime?: string;
  size?: number;
  url?: string;
  /** The workspace the file was shared in (Slack: the message's team), whose token may download it. */
  workspace?: string;
}
