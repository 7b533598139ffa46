// Runs {{name}} over stdin/stdout (what zot and `zot-host` start:
// extension.json runs the compiled dist/index.js).
import { extension } from "./extension.js";

await extension().run();
