/** CSV cells and files: one implementation for the console and the server's CSV answers (shared/csv.ts). */
export { csvCell, toCsv, type Cell } from '../../shared/csv.ts';
