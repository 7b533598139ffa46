// `node index.mjs`: the conformance extension over stdin/stdout.
import { extension } from "./extension.mjs";

const ext = extension();
ext.log("conformance started");
ext.run().catch((e) => {
  ext.log(e.message);
  process.exitCode = 1;
});
