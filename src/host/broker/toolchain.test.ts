import { parseJavaMajor } from './toolchain';

it('reads the feature release from java -version', () => {
  expect(parseJavaMajor('openjdk version "17.0.15" 2025-04-15\nOpenJDK Runtime Environment')).toBe(17);
  expect(parseJavaMajor('openjdk version "21" 2023-09-19')).toBe(21);
  expect(parseJavaMajor('java version "1.8.0_292"')).toBe(8);
  expect(parseJavaMajor('no java here')).toBeUndefined();
});
