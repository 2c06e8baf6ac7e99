// A type error: tsc would still emit JavaScript, but the compile fails.
const total: number = "one";
console.log(total);
