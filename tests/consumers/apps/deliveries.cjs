// Sends one delivery and its duplicate to a running server, and prints what came back as one
// JSON line for the test to read. Shared by every consumer app (CommonJS, so ESM apps import it too).
async function deliverTwice(port, runs) {
  const send = async () => {
    const res = await fetch(`http://127.0.0.1:${port}/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-delivery-id': 'evt_consumer_1' },
      body: JSON.stringify({ id: 'evt_consumer_1', amount: 500 }),
    });
    return {
      status: res.status,
      body: await res.text(),
      replayed: res.headers.get('idempotent-replayed'),
    };
  };
  const first = await send();
  const second = await send();
  return { first, second, runs: runs() };
}

/** Listens on a free port, delivers twice, prints the result and closes. */
async function exercise(server, runs) {
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    process.stdout.write(`${JSON.stringify(await deliverTwice(server.address().port, runs))}\n`);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

module.exports = { deliverTwice, exercise };
