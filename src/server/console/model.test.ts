/** The console's model type cannot drift from the schema `GET /ui/model` answers with (checked by the compiler). */

import type { Equal, SchemaType } from '../../client/testing/schema-type';
import { consoleModel } from '../schemas/console';
import type { ConsoleModel } from './model';

it('ConsoleModel is the type of the /ui/model schema', () => {
  const same: Equal<ConsoleModel, SchemaType<typeof consoleModel>> = true;
  expect(same).toBe(true);
});
