/**
 * `GET /ui/model` (schema in ../schemas/console.ts) as TypeScript, with no imports: the console's bundle imports
 * this type, so its typecheck reads nothing of the server beyond it.
 */
export interface ConsoleModel {
  version: string;
  user: string | null;
  role: 'viewer' | 'operator' | null;
  headless: boolean;
  canChange: boolean;
  applications: { id: string; stores: { name: string; type: string | null }[] }[];
  /** Each clause's parameters, and those of them that may be left out. */
  storeTypes: { type: string; clauses: { name: string; params: string[]; optional: string[] }[] }[];
  options: string[];
}
