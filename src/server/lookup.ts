import { UnknownApplication } from '../errors';
import type { InstanceRegistry, LocalInstance } from './context';

/** The local instance of an application id, or the catalogue's 404. */
export function instanceOrThrow(instances: InstanceRegistry, applicationId: string): LocalInstance {
  const instance = instances.get(applicationId);
  if (instance === undefined) throw new UnknownApplication(applicationId);
  return instance;
}
