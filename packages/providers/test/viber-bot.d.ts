/** The one part of viber-bot (which ships no types) the tests use as a judge. */
declare module 'viber-bot/lib/message/message-validator' {
  /** Checks a callback's signature: hex HMAC-SHA256 of the body under the bot's token. */
  class MessageValidator {
    constructor(logger: { debug(...args: unknown[]): void }, authToken: string);
    validateMessage(serverSideSignature: string, message: string): boolean;
  }
  export = MessageValidator;
}
