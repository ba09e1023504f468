// Renders ZPL files back to PNG with zpl-renderer-js (Zebrash), one Node
// process for a whole test (loading the WebAssembly takes seconds).
//
// Usage: node render.mjs JOBS.json
// JOBS.json: [{"zpl": FILE, "dpi": N, "width": DOTS, "height": DOTS,
//              "out": PREFIX}, ...]; each label of FILE is written as
// PREFIX-1.png, PREFIX-2.png, ... Prints {"labels": [count per job]}.
import { ready } from "zpl-renderer-js";
import fs from "node:fs";

const jobs = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const { api } = await ready;
const labels = [];
for (const job of jobs) {
  // Zebrash takes whole dots per mm (6, 8, 12, 24): the printer's class.
  // Graphics are drawn dot for dot whatever it is; it only sizes the image.
  const dpmm = Math.round(job.dpi / 25.4);
  // The renderer sizes its image as mm x dots/mm, rounded up; a quarter
  // dot under the label's size gives exactly its dots (also if it rounded).
  const width = (job.width - 0.25) / dpmm;
  const height = (job.height - 0.25) / dpmm;
  const zpl = fs.readFileSync(job.zpl, "utf8");
  const images = await api.zplToBase64MultipleAsync(zpl, width, height, dpmm);
  images.forEach((b64, i) => fs.writeFileSync(`${job.out}-${i + 1}.png`, Buffer.from(b64, "base64")));
  labels.push(images.length);
}
console.log(JSON.stringify({ labels }));
