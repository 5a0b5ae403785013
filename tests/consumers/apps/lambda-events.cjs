// A node:http request listener that invokes a Lambda handler with each request as an HTTP API
// (payload 2.0) event and writes its result back: API Gateway in a few lines, for the Lambda apps.
function invoke(handler) {
  return async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const [rawPath, rawQueryString = ''] = req.url.split('?');
    const headers = {};
    for (const [name, value] of Object.entries(req.headers))
      headers[name] = Array.isArray(value) ? value.join(',') : value;
    const event = {
      version: '2.0',
      routeKey: '$default',
      rawPath,
      rawQueryString,
      headers,
      requestContext: { http: { method: req.method, path: rawPath }, stage: '$default' },
      body: Buffer.concat(chunks).toString('base64'),
      isBase64Encoded: true,
    };
    const context = { getRemainingTimeInMillis: () => 30_000 };
    const result = await handler(event, context);
    res.writeHead(result.statusCode, result.headers ?? {});
    res.end(Buffer.from(result.body ?? '', result.isBase64Encoded ? 'base64' : 'utf8'));
  };
}

module.exports = { invoke };
