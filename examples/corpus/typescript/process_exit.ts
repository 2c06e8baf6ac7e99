// Debian's tsc has no Node.js type declarations: what the program uses is declared.
declare const require: (name: string) => any;
declare const process: { exit(code: number): never };
const [a, b] = require("fs").readFileSync(0, "utf8").trim().split(/\s+/).map(BigInt);
console.log((a + b).toString());
process.exit(0);
