import { catalogSchema } from '../../manager/documents.js';
import { EXIT, type CliIO, type ExitCode } from '../io.js';

/** `toolman schema`: the catalog format's JSON Schema, for editors and other tools. */
export async function schemaCommand(io: CliIO): Promise<ExitCode> {
  io.stdout.write(JSON.stringify(catalogSchema(), null, 2) + '\n');
  return EXIT.OK;
}
