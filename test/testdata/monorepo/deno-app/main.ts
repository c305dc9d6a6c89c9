console.log("deno");
