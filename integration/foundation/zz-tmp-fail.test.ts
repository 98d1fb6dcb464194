it('fails', () => expect(1).toBe(2));
