// `import "zot-ext/protect-stdout";` as an extension's first import: stdout
// is protected before any other module (or the extension's own code) runs.
// See `protectStdout`.

import { protectStdout } from "./stdout";

protectStdout();
