// The Windows Node check of `./dev test windows`: output printed while the
// extension runs must reach stderr, never the wire.
const { Extension, Response } = require("zot-ext");

new Extension("stdout", "1.0.0")
  .command("hi", "Say hi", (args) => {
    console.log("console.log in a handler");
    process.stdout.write("process.stdout.write in a handler\n");
    return Response.display(`hi ${args}`);
  })
  .run();
