import autocannon from 'autocannon';
const [url, secs = 5, conns = 50] = process.argv.slice(2);
const r = await autocannon({ url, connections: +conns, duration: +secs, headers: { 'cache-control': 'no-cache' }, workers: process.env.ACW ? +process.env.ACW : undefined });
console.log(`${url.replace(/^.*\/api/, '')} req/s ${Math.round(r.requests.average)} p50 ${r.latency.p50} non2xx ${r.non2xx} errors ${r.errors}`);
