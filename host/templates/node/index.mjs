// Runs {{name}} over stdin/stdout (what zot and `zot-host` start).
import { extension } from "./extension.mjs";

await extension().run();
