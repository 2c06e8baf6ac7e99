// Keeps 1 GiB of arrays alive: under a 256 MB limit this must be Memory Limit Exceeded.
const kept = [];
for (let i = 0; i < 1024; i++) {
    kept.push(new Array(1 << 17).fill(i));
}
console.log(kept.length);
