#!/usr/bin/env node
import { main } from "./entry/cli/main.js";

await main(process.argv);
