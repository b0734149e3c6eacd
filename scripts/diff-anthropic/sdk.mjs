// sdk.mjs: what Anthropic's TypeScript SDK makes of each stream of make diff-anthropic.
// usage: node sdk.mjs BASE_URL CASES.json  (run where node_modules holds @anthropic-ai/sdk)
// One JSON line per case: {"case", "message": finalMessage()} or {"case", "error"}.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(process.cwd() + '/');
const Anthropic = require('@anthropic-ai/sdk').default;
const [base, casesFile] = process.argv.slice(2);
const client = new Anthropic({ apiKey: 'sk-ant-diff-test', baseURL: base, maxRetries: 0 });

for (const name of JSON.parse(readFileSync(casesFile, 'utf8'))) {
	let line;
	try {
		const message = await client.messages
			.stream({
				model: 'claude-sonnet-4-5',
				max_tokens: 1024,
				messages: [{ role: 'user', content: `diff-case <${name}>` }],
			})
			.finalMessage();
		line = { case: name, message };
	} catch (e) {
		line = { case: name, error: String(e && e.message ? e.message : e) };
	}
	process.stdout.write(JSON.stringify(line) + '\n');
}
