/** The one part of coinbase-commerce-node (which ships no types) the tests use as a judge. */
declare module 'coinbase-commerce-node' {
  export const Webhook: {
    /** True for a signature it accepts; throws SignatureVerificationError otherwise. */
    verifySigHeader(payload: string, sigHeader: string, secret: string): boolean;
  };
}
