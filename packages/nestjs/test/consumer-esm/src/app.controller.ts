import { Controller, Get, Param, Post } from '@nestjs/common';
import { Redisson } from 'redisson-ts';
import { InjectRedisson, WithLock } from 'redisson-ts-nestjs';

@Controller()
export class AppController {
  constructor(@InjectRedisson() private readonly redisson: Redisson) {}

  @Post('counter/:id')
  @WithLock('counter:{0}')
  async increment(@Param('id') id: string): Promise<{ value: number }> {
    const value = Number((await this.redisson.redis.get(`count:${id}`)) ?? 0);
    await new Promise((resolve) => setImmediate(resolve));
    await this.redisson.redis.set(`count:${id}`, value + 1);
    return { value: value + 1 };
  }

  @Get('busy/:id')
  @WithLock('busy:{0}', { waitTime: 200 })
  busy(@Param('id') id: string): { ran: string } {
    return { ran: id };
  }
}
