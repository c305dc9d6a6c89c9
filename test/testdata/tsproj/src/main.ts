import { helper } from "./util";

console.log(helper(1));
