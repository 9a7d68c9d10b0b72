import { catalogSchema } from '../../manager/documents.js';
import { EXIT, type CliIO, type ExitCode } from '../io.js';
import { jsonDocument } from '../output/json-document.js';

/** `toolman schema`: the catalog format's JSON Schema, for editors and other tools. */
export async function schemaCommand(io: CliIO): Promise<ExitCode> {
  io.stdout.write(jsonDocument(catalogSchema()) + '\n');
  return EXIT.OK;
}
