import fs from "node:fs";
import { FIGURES_FILE, formatFigures, readFigures } from "./figures";

/** Clears the figures file before the run and prints the summary table after it. */
export default function setup(): () => void {
  fs.rmSync(FIGURES_FILE, { force: true });
  return () => {
    console.log(formatFigures(readFigures()));
  };
}
