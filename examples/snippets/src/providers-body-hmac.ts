/**
 * @module docs/providers.md (the raw-body HMAC presets of the hmac() family): each factory and
 * what it books a request under. test/providers-body-hmac.test.ts runs each on a real request.
 */
import type { HttpRequest } from '@webhook-idempotency/core';
import * as providers from '@webhook-idempotency/providers';

export function lineKeys(request: HttpRequest): unknown {
  // #region line
  const preset = providers.line({ channelSecret: process.env.LINE_CHANNEL_SECRET! });
  preset.items?.(request)?.map((item) => item.key); // ['01FZ74A0TDDPYRVKNK77XKC3ZR'] (each event's webhookEventId)
  // #endregion line
  return preset.items?.(request)?.map((item) => item.key);
}

export function notionKeys(request: HttpRequest): unknown {
  // #region notion
  const preset = providers.notion({
    verificationToken: process.env.NOTION_VERIFICATION_TOKEN!, // pasted from the verification below
    // The one-time verification POST is not signed: show the token to a person, never install it.
    onVerificationToken: (token) => console.info('Notion verification token:', token),
  });
  preset.key(request); // '367cba44-b6f3-4c92-81e7-6a2e9659efd4' (the event id)
  // #endregion notion
  return preset.key(request);
}

export function woocommerceKey(request: HttpRequest): unknown {
  // #region woocommerce
  const preset = providers.woocommerce({ secret: process.env.WOOCOMMERCE_WEBHOOK_SECRET! });
  preset.key(request); // 'order.updated:727:ee63f3b80cb1a93d78eb27be778c3c40' (topic, id, body digest)
  // #endregion woocommerce
  return preset.key(request);
}

export function gocardlessKeys(request: HttpRequest): unknown {
  // #region gocardless
  const preset = providers.gocardless({ secret: process.env.GOCARDLESS_WEBHOOK_SECRET! });
  preset.items?.(request)?.map((item) => item.key); // ['EV0001', 'EV0002'] (each event's id)
  // #endregion gocardless
  return preset.items?.(request)?.map((item) => item.key);
}

export function viberKey(request: HttpRequest): unknown {
  // #region viber
  const preset = providers.viber({ authToken: process.env.VIBER_AUTH_TOKEN! });
  preset.key(request); // 'message:5741311803571721087:01234567890A=' (event, message_token, sender)
  // #endregion viber
  return preset.key(request);
}
